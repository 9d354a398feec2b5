//! The in-memory store's side of this capability.

use crate::ids::{AccountId, OrganisationId};
use async_trait::async_trait;

use crate::records::{Account, Timestamp};
use crate::store::memory::MemoryStore;
use crate::store::{
    AuthStore, OtpLogin, OtpRequest, OtpSave, SendLog, Session, SessionReader, StaffAccount,
    StoreError, StoreResult,
};

#[async_trait]
impl SessionReader for MemoryStore {
    async fn session(&self, token_hash: &str) -> StoreResult<Option<Session>> {
        Ok(self.lock().sessions.get(token_hash).cloned())
    }

    async fn touch_session(&self, token_hash: &str, at: Timestamp) -> StoreResult<()> {
        if let Some(session) = self.lock().sessions.get_mut(token_hash) {
            session.last_seen_at = at;
        }
        Ok(())
    }
}

#[async_trait]
impl AuthStore for MemoryStore {
    async fn otp_context(&self, phone_number: &str) -> StoreResult<(Option<Account>, SendLog)> {
        let state = self.lock();
        Ok((
            state.accounts_by_phone.get(phone_number).cloned(),
            state
                .send_logs
                .get(phone_number)
                .cloned()
                .unwrap_or_default(),
        ))
    }

    async fn save_otp(&self, save: OtpSave<'_>) -> StoreResult<()> {
        let mut state = self.lock();
        let current = state
            .send_logs
            .get(&save.request.phone_number)
            .map_or(0, |log| log.version);
        if current != save.read_version {
            return Err(StoreError::ConditionFailed);
        }
        state
            .send_logs
            .insert(save.request.phone_number.clone(), save.log.clone());
        if let Some(replaced) = save.replaces {
            state
                .otps
                .remove(&(save.request.phone_number.clone(), replaced.to_string()));
        }
        state.otps.insert(
            (
                save.request.phone_number.clone(),
                save.request.request_id.clone(),
            ),
            save.request.clone(),
        );
        Ok(())
    }

    async fn otp_and_account(
        &self,
        phone_number: &str,
        request_id: &str,
    ) -> StoreResult<(Option<OtpRequest>, Option<StaffAccount>)> {
        let state = self.lock();
        let staff = state
            .accounts_by_phone
            .get(phone_number)
            .map(|account| StaffAccount {
                account: account.clone(),
                organisation_id: OrganisationId(
                    state
                        .portals
                        .get(&account.portal_id)
                        .map_or(0, |portal| portal.organisation_id),
                ),
            });
        let key = (phone_number.to_string(), request_id.to_string());
        Ok((state.otps.get(&key).cloned(), staff))
    }

    async fn record_failed_attempt(&self, otp: &OtpRequest, max_attempts: u32) -> StoreResult<u32> {
        let mut state = self.lock();
        match state
            .otps
            .get_mut(&(otp.phone_number.clone(), otp.request_id.clone()))
        {
            Some(stored)
                if stored.request_id == otp.request_id
                    && !stored.used
                    && stored.attempts < max_attempts =>
            {
                stored.attempts += 1;
                Ok(stored.attempts)
            }
            _ => Err(StoreError::ConditionFailed),
        }
    }

    async fn consume_otp(&self, login: OtpLogin<'_>) -> StoreResult<()> {
        let mut state = self.lock();
        match state
            .otps
            .get_mut(&(login.otp.phone_number.clone(), login.otp.request_id.clone()))
        {
            Some(stored)
                if stored.request_id == login.otp.request_id
                    && !stored.used
                    && stored.attempts < login.max_attempts =>
            {
                stored.used = true;
            }
            _ => return Err(StoreError::ConditionFailed),
        }
        let log = state
            .send_logs
            .entry(login.otp.phone_number.clone())
            .or_default();
        log.validated.insert(login.otp.request_id.clone());
        if login.otp.source.is_known() {
            log.known.insert(login.otp.source, login.known_until);
        }
        log.version += 1;
        state
            .sessions
            .insert(login.session.token_hash.clone(), login.session.clone());
        state
            .account_sessions
            .entry(login.session.account_id)
            .or_default()
            .insert(login.session.token_hash.clone());
        Ok(())
    }

    async fn delete_session(&self, token_hash: &str) -> StoreResult<()> {
        let mut state = self.lock();
        if let Some(session) = state.sessions.remove(token_hash)
            && let Some(hashes) = state.account_sessions.get_mut(&session.account_id)
        {
            hashes.remove(token_hash);
        }
        Ok(())
    }

    async fn delete_all_sessions(&self, account_id: AccountId) -> StoreResult<usize> {
        let mut state = self.lock();
        let hashes = state
            .account_sessions
            .remove(&account_id)
            .unwrap_or_default();
        for hash in &hashes {
            state.sessions.remove(hash);
        }
        Ok(hashes.len())
    }
}
